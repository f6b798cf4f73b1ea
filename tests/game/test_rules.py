import pytest
from leastscore.game import Rules


def test_defaults_are_the_standard_game():
    r = Rules()
    assert (r.threshold, r.false_declare_penalty, r.declare_limit) == (100, 20, None)
    assert not (r.runs_same_suit or r.tie_loses or r.first_out_ends)
    assert (r.max_turns, r.max_rounds) == (500, 1000)
    assert Rules(threshold=25).changes() == {"threshold": 25}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"threshold": 0}, "threshold must be at least 1"),
        ({"threshold": "100"}, "threshold must be a whole number"),
        ({"threshold": 50.5}, "threshold must be a whole number"),
        ({"runs_same_suit": 1}, "runs_same_suit must be true or false"),
        ({"false_declare_penalty": -1}, "false_declare_penalty must be at least 0"),
        ({"declare_limit": -3}, "declare_limit must be at least 0"),
        ({"max_turns": 0}, "max_turns must be at least 1"),
        ({"max_rounds": True}, "max_rounds must be a whole number"),
    ],
)
def test_bad_values_are_refused_clearly(options, message):
    with pytest.raises(ValueError, match=message):
        Rules(**options)


def test_from_dict():
    assert Rules.from_dict({"threshold": 50, "tie_loses": True}) == Rules(
        threshold=50, tie_loses=True
    )
    with pytest.raises(ValueError, match="bad rules"):
        Rules.from_dict({"treshold": 50})
    with pytest.raises(ValueError, match="threshold"):
        Rules.from_dict({"threshold": -5})
    assert Rules.from_dict(Rules(declare_limit=7).to_dict()) == Rules(declare_limit=7)
