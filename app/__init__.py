"""The web app: play the solved games against their bots (HTML pages and a REST API)."""
