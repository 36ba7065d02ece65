"""Run the code blocks of one Markdown page, as a reader would, in this fresh process.

``python tests/doc_page_runner.py PAGE`` runs in the current folder (the test
gives each page its own empty temporary folder) and exits with 0 when every
block ran, or prints where a block failed and exits with 1. It imports nothing
from kanon_graph itself: the page's own ``import`` lines must be enough, as in
a reader's fresh interpreter (issue 16: a page using ``kg.io`` passed only
because the test process had imported ``kanon_graph.cli`` before).

* ```python blocks run in order in one namespace; a block written as a
  ``>>>`` session is checked as a doctest; a block whose first line is
  ``# file: NAME.py`` is written to NAME.py (not run) for later blocks;
* in shell blocks, every ``kanon-graph ...`` command runs in a second fresh
  process (:class:`CliWorker`) and must exit with 0; its standard output is
  saved in ``.cli/N.out`` with its arguments in ``.cli/N.args`` (JSON) for the
  test to compare with the page; the other shell commands are checked by
  ``tests/test_docs.py`` without running them (see ``shell_commands`` there);
* ```text blocks are output and are not run.
"""

import doctest
import json
import re
import shlex
import subprocess
import sys
import traceback
from pathlib import Path

FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SHELL = ("bash", "sh", "shell")


def code_blocks(page):
    """``[(language, code, line)]`` of the fenced blocks of a Markdown page."""
    text = Path(page).read_text(encoding="utf-8")
    return [(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start()) + 1)
            for m in FENCE.finditer(text)]


def shell_commands(code):
    """The commands of a shell block, continuations joined and ``&&`` lists split."""
    joined = re.sub(r"\\\n\s*", " ", code)
    for line in joined.splitlines():
        for part in line.split("&&"):
            if part.strip() and not part.strip().startswith("#"):
                yield part.strip()


class CliWorker:
    """One more fresh process that runs a page's ``kanon-graph`` commands in turn.

    The commands run through ``kanon_graph.cli.main`` there, never in the process
    running the page's Python (importing the CLI would load modules the page
    must import itself); one process per page, not per command, keeps the
    start-up cost (about 1.5 s each) to one per page.
    """

    def __init__(self):
        self.proc = None

    def run(self, argv):
        """``(exit code, stdout, stderr)`` of ``kanon-graph *argv``."""
        if self.proc is None:
            self.proc = subprocess.Popen([sys.executable, __file__, "--cli-worker"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True)
        self.proc.stdin.write(json.dumps(argv) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            return -1, "", "the kanon-graph worker process died"
        answer = json.loads(reply)
        return answer["code"], answer["out"], answer["err"]

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


def cli_worker():
    """Read one JSON argv a line; answer ``{"code", "out", "err"}`` a line."""
    import contextlib
    import io

    from kanon_graph.cli import main

    replies = sys.stdout
    for line in sys.stdin:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(json.loads(line))
            except SystemExit as stop:  # argparse's own exits
                code = stop.code if isinstance(stop.code, int) else 1
        replies.write(json.dumps({"code": code or 0, "out": out.getvalue(),
                                  "err": err.getvalue()}) + "\n")
        replies.flush()


def run_page(page):
    """Run every block of ``page`` in the current folder; raise on the first failure."""
    namespace = {"__name__": "__docs__"}
    worker = CliWorker()
    try:
        _run_blocks(page, namespace, worker)
    finally:
        worker.close()


def _run_blocks(page, namespace, worker):
    outputs = Path(".cli")
    n_cli = 0
    sys.path.insert(0, str(Path.cwd()))
    for lang, code, line in code_blocks(page):
        where = f"{Path(page).name}, block at line {line}"
        first = code.lstrip().splitlines()[0] if code.strip() else ""
        if lang == "python" and first.startswith("# file:"):
            Path(first.split(":", 1)[1].strip()).write_text(code, encoding="utf-8")
        elif lang == "python" and code.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(code, namespace, where, str(page), line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                           | doctest.NORMALIZE_WHITESPACE)
            report = []
            runner.run(test, out=report.append)
            if runner.failures:
                raise AssertionError(f"{where}:\n" + "".join(report))
        elif lang == "python":
            exec(compile(code, where, "exec"), namespace)
        elif lang in SHELL:
            for command in shell_commands(code):
                if not command.startswith("kanon-graph "):
                    continue
                argv = shlex.split(command)[1:]
                code_, out, err = worker.run(argv)
                if code_ != 0:
                    raise AssertionError(f"{where}: {command} -> {code_}: {err.strip()}")
                outputs.mkdir(exist_ok=True)
                (outputs / f"{n_cli}.out").write_text(out, encoding="utf-8")
                (outputs / f"{n_cli}.args").write_text(json.dumps(argv), encoding="utf-8")
                n_cli += 1


if __name__ == "__main__" and sys.argv[1:] == ["--cli-worker"]:
    cli_worker()
elif __name__ == "__main__":
    try:
        run_page(sys.argv[1])
    except Exception:  # report any failure of the page's code, then fail the process
        traceback.print_exc()
        sys.exit(1)
