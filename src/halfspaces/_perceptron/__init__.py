"""The perceptron family's algorithms, behind :mod:`halfspaces.perceptron` and
:mod:`halfspaces.multiclass`.

- :mod:`.epochs`: the epoch driver every perceptron-like run uses (the primal runs here and
  the dual run of :mod:`halfspaces._kernel`): the order of each pass, the stop on a pass
  without updates;
- :mod:`.run`: the binary and multiclass runs over the compiled epoch loops, with the
  averaged, voted and pocket modes, and the state a warm start continues;
- :mod:`.vote_log`: the voted perceptrons' log of updates, and the votes read from it;
- :mod:`.online`: the online protocol (predict, see the label, update on a mistake);
- :mod:`.widen`: weights grown as new features appear in a stream;
- :mod:`.docs`: the family's contract: the Parameters text and the fitted attributes that its
  classes share.

Its modules are imported by their own names (``from halfspaces._perceptron.run import
run_perceptron``); this file imports nothing, so importing one loads only what it needs.
"""
