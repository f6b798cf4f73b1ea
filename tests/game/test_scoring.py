import pytest
from leastscore.game import Rules, declaration_holds, settle


def test_rules_md_examples():
    assert settle([10, 16, 17], 0) == [0, 6, 7]
    assert settle([10, 8, 15], 0) == [22, 0, 0]


def test_declarer_in_any_seat():
    assert settle([16, 10, 17], 1) == [6, 0, 7]
    assert settle([8, 15, 10], 2) == [0, 0, 22]


def test_ties():
    assert settle([7, 7, 12], 0) == [0, 0, 5]
    assert declaration_holds([7, 7, 12], 0)
    tie_loses = Rules(tie_loses=True)
    assert not declaration_holds([7, 7, 12], 0, tie_loses)
    assert settle([7, 7, 12], 0, tie_loses) == [20, 0, 0]
    assert settle([3, 7, 12], 0, tie_loses) == [0, 4, 9]


def test_penalty_house_rule():
    assert settle([10, 8, 15], 0, Rules(false_declare_penalty=30)) == [32, 0, 0]
    assert settle([10, 8, 15], 0, Rules(false_declare_penalty=0)) == [2, 0, 0]


def test_someone_always_scores_zero():
    for totals in ([1, 2], [9, 3, 3], [50, 50, 50, 50]):
        for declarer in range(len(totals)):
            assert 0 in settle(totals, declarer)


def test_bad_declarer():
    with pytest.raises(ValueError):
        settle([1, 2], 2)
