"""Writes. Each service is named ``<entity>_<action>`` and takes keyword-only arguments."""
