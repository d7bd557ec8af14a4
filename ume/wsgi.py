from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from ume.workers import freeze_loaded_objects

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")

application = get_wsgi_application()
freeze_loaded_objects()  # what start-up loaded lives as long as the worker (ume/workers.py)
