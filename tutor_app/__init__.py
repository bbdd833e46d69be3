"""Tutor: a desktop voice tutor for spoken English practice."""

__version__ = "0.1.0"
APP_NAME = "tutor-app"
