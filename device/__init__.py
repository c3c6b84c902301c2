"""Cameras, the capture loop, the web app and the command line."""
