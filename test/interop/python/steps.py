"""What every interop script shares: a python-gitlab client per demo role, and steps whose results or errors are printed as JSON."""
import json
import os
import sys
import traceback

import gitlab

URL = os.environ["SANDBOX_URL"]
TOKENS = json.loads(os.environ["SANDBOX_TOKENS"])


def connect(role="maintainer", **options):
    """A client as an automation script makes one: the base URL and a private token (none for 'anonymous')."""
    token = None if role == "anonymous" else TOKENS[role]
    return gitlab.Gitlab(URL, private_token=token, timeout=10, **options)


def described(error):
    """The parts of a python-gitlab error a script reads: its class, the HTTP status and the service's message."""
    return {
        "class": type(error).__name__,
        "response_code": getattr(error, "response_code", None),
        "message": getattr(error, "error_message", None) if isinstance(error, gitlab.GitlabError) else str(error),
        "trace": "".join(traceback.format_exception(error)[-4:]),
    }


def refusal(call):
    """Runs a call that must fail with a python-gitlab error and describes the error; a success is a failed step."""
    try:
        result = call()
    except gitlab.GitlabError as error:
        return described(error)
    raise AssertionError(f"expected a python-gitlab error, the call returned {result!r}")


class Steps:
    """Named steps run in order; each records its value or the error it raised, so one failure does not hide the rest."""

    def __init__(self):
        self.results = {}

    def __call__(self, name):
        if name in self.results:
            raise ValueError(f"step {name} twice")
        return _Step(self, name)

    def emit(self):
        json.dump(self.results, sys.stdout, default=str)
        sys.stdout.write("\n")


class _Step:
    def __init__(self, steps, name):
        self.steps = steps
        self.name = name
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, kind, error, _trace):
        if error is None:
            self.steps.results[self.name] = {"ok": True, "value": self.value}
        elif isinstance(error, Exception):
            self.steps.results[self.name] = {"ok": False, "error": described(error)}
        return isinstance(error, Exception)
