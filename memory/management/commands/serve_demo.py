"""``manage.py serve_demo``: the development server of ``make run``, which prints the demo
login last, after the server's own start-up lines, where a person looks for it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.staticfiles.management.commands.runserver import Command as RunServer

from memory.management.commands.seed_demo import demo_login_line


class Command(RunServer):
    help = "Serve the dashboard for the local demo and print the demo login once it is up."

    def on_bind(self, server_port: Any) -> None:
        super().on_bind(server_port)
        login = demo_login_line(settings.UME_DEMO_USERNAME, settings.UME_DEMO_PASSWORD)
        self.stdout.write(self.style.SUCCESS(login))
