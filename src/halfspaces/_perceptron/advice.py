"""What a perceptron's ConvergenceWarning advises, by what the estimator already is.

A run that updates in every pass on data that are not linearly separable is expected: the
averaged, voted and pocket perceptrons are made for such data (Freund and Schapire 1999;
Gallant 1990), and advising one of them to become another sent the user in a circle. Only
the last weights of the plain perceptron can be poor there, so only it is pointed to them.
"""

from __future__ import annotations

__all__ = ["MADE_FOR_NON_SEPARABLE", "not_converged_advice"]

MADE_FOR_NON_SEPARABLE = {
    "AveragedPerceptron": "the mean of all the weights",
    "VotedPerceptron": "a vote of every weight vector",
    "PocketPerceptron": "the weights with the fewest training errors",
}
"""The perceptrons whose hypothesis is meant for data that are not separable, and why."""


def not_converged_advice(name: str, max_epochs: int, *, made_for_it: str | None = None,
                         alternatives: str | None = None) -> str:
    """The warning of estimator `name` after max_epochs passes that all made updates.

    `made_for_it` says how the estimator's hypothesis is meant for non-separable data (by
    default :data:`MADE_FOR_NON_SEPARABLE`'s entry for `name`; None where it is not);
    `alternatives` is what the others are told to use instead (by default the averaged and
    pocket perceptrons).
    """
    head = (f"{name} made updates in each of its max_epochs={max_epochs} passes: the data may "
            "not be linearly separable (halfspaces.theory.separability decides it).")
    made_for_it = made_for_it or MADE_FOR_NON_SEPARABLE.get(name)
    if made_for_it:
        return (f"{head} {name} is made for such data ({made_for_it}): its weights can be "
                "used as they are; raise max_epochs only if the data are separable and a "
                "hypothesis with no training error is wanted.")
    if alternatives is None:
        alternatives = ("AveragedPerceptron (the mean of all the weights) or PocketPerceptron "
                        "(the weights with the fewest training errors)")
    return (f"{head} The last weights of such a run can be poor: use {alternatives}, made "
            "for such data, or raise max_epochs if the data are separable.")
