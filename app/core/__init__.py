"""What every layer of the app stands on: its settings, the domain's errors, and the HTTP
server's own hardening. It imports nothing else of the app.

=================  ==========================================================================
``config``         every setting, read from the environment in one place
``errors``         the domain's errors, which the services raise and the front ends word
``origin``         where a request comes from, and relative redirects
``security``       security headers and the request body limit (ASGI middleware)
``serve``          uvicorn's HTTP protocol, with ``TCP_NODELAY`` and a bound on the head
=================  ==========================================================================
"""
