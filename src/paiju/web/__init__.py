"""The paiju web app (``paiju serve``): play Dou Dizhu, mahjong and yuxi against the AIs, and
look at deal selection (DIH), generated reports and recorded games.

``paiju.web.app.create_app(data_dir)`` builds the FastAPI app from the routers of
:mod:`paiju.web.routes` (one per area), the shared :mod:`paiju.web.state` and the error
handling of :mod:`paiju.web.errors`; :mod:`paiju.web.sessions` holds the replayable game
sessions, :mod:`paiju.web.store` their SQLite storage, and :mod:`paiju.web.analysis` the
analysis pages' back end. The front end is plain HTML/JS/CSS in ``static/`` (no build step).
``docs/web.md`` ("Code layout") says where each part lives.
"""
