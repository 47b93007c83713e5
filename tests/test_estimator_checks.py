"""scikit-learn's estimator checks over every estimator the package exports.

Estimators are discovered from ``halfspaces.__all__``, so a new one cannot be forgotten. An
estimator that must skip a check says which and why in a class attribute
``_expected_failed_checks`` (a dict: check name -> reason).
"""

from __future__ import annotations

import inspect

import pytest

from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import halfspaces


# Parameters for the checks where a default would make them too slow: exact 0-1 ERM proves
# optimality by branch and bound, exponential in the worst case, on the checks' 300 points.
CHECK_PARAMS = {"ZeroOneERMClassifier": {"time_limit": 0.3}}


def public_estimators():
    classes = (getattr(halfspaces, name) for name in halfspaces.__all__)
    return [
        cls(**CHECK_PARAMS.get(cls.__name__, {}))
        for cls in classes
        if inspect.isclass(cls) and issubclass(cls, BaseEstimator)
    ]


def expected_failed_checks(estimator):
    return getattr(estimator, "_expected_failed_checks", {})


def test_every_perceptron_is_discovered():
    names = {type(est).__name__ for est in public_estimators()}
    assert {"Perceptron", "AveragedPerceptron", "VotedPerceptron", "PocketPerceptron"} <= names


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(public_estimators(), expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
