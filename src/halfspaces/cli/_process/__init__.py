"""The command-line process itself, apart from any command: what ``halfspaces`` needs because
it runs as a program and ends with its command.

* :mod:`.environment`: closed streams, absurd terminal widths, an output encoding that
  cannot write a label, a deleted working directory, made safe or one clear error;
* :mod:`.signals`: SIGTERM and SIGHUP clean up as Ctrl-C does;
* :mod:`.collector`: the cyclic garbage collector paused through start-up, frozen at exit;
* :mod:`.lazy`: modules that scikit-learn imports but no command uses, loaded at first use.

Only :func:`halfspaces.cli.main` and :func:`halfspaces.cli.run` use them; library callers
(tests, notebooks) keep their own process as it is.
"""
