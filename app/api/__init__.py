"""The REST API, version 1 (``/api/v1``)."""
