"""The local web app of ``uschess serve``: the estimator, rating an uploaded
event, the rules timeline, the ratings store, and a JSON API under ``/api/``
that returns what the matching ``--json`` command prints.

Pages are rendered on the server (Jinja2 templates, one CSS file) and work
with JavaScript off.  Starlette, Jinja2 and uvicorn are the ``web`` extra.
"""
