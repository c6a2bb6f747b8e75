"""Widgets of the qcstation workstation (rendering only; no database access)."""

from __future__ import annotations
