"""Type stubs of the native module (python/src/lib.rs). Each function returns
the JSON document of ``ctxlint … --output-format json``."""
from typing import List, Optional, Sequence, Tuple

__version__: str

class CtxlintError(Exception):
    """A usage, configuration or I/O error, with the command's message."""

class UsageError(CtxlintError):
    """A bad argument or option."""

def main(argv: Sequence[str]) -> int: ...
def check_json(
    paths: Sequence[str],
    config: Optional[str] = None,
    isolated: bool = False,
    select: Optional[Sequence[str]] = None,
    ignore: Optional[Sequence[str]] = None,
    input_format: Optional[str] = None,
    fail_on: Optional[str] = None,
) -> str: ...
def check_memory_json(
    files: Sequence[Tuple[str, bytes]],
    stream_name: str,
    config: Optional[str] = None,
    isolated: bool = False,
    select: Optional[Sequence[str]] = None,
    ignore: Optional[Sequence[str]] = None,
    input_format: Optional[str] = None,
    fail_on: Optional[str] = None,
) -> str: ...
def fence_json(old: str, new: str, owned: Optional[List[str]] = None) -> str: ...
