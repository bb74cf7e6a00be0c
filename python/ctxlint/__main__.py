"""``python -m ctxlint`` and the ``ctxlint`` command of the Python package:
the command line itself (the same Rust code as the binary), run in this process."""
import sys

from . import _ctxlint


def main() -> None:
    sys.exit(_ctxlint.main(["ctxlint", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
