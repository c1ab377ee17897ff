"""HTML pages (server-rendered with Jinja2 and htmx)."""
