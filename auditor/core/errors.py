"""Exceptions mean "could not audit at all" (exit 3) or "the command line is wrong" (exit 2).

Problems with the checkpoint itself are findings, never exceptions. Each error carries one sentence that
tells the user what to do next; the CLI prints it without a traceback unless ``--debug``.
"""

from __future__ import annotations


class AuditError(Exception):
    """The audit could not be carried out (target missing, nothing safetensors, Hub unreachable...)."""

    exit_code = 3


class UsageError(AuditError):
    """The request itself is malformed (bad option value, malformed policy file)."""

    exit_code = 2


class TargetNotFound(AuditError):
    """The path or repo does not exist."""


class NotASafetensorsCheckpoint(AuditError):
    """The target holds no safetensors weights (maybe only pickle files)."""


class HubError(AuditError):
    """The Hub could not be asked (not found, gated, unauthorized, offline, network down)."""


class ConfigError(AuditError):
    """config.json could not be read."""


def about(target: str, why: str) -> str:
    """``why`` as a line about ``target``: most errors already open with the target they concern (``x: no such file
    or directory``), the others get it in front. Only the wording is decided here, never a verdict or an exit code
    (those come from the exception's class)."""
    return why if why.startswith(target) else f"{target}: {why}"
