from papersift.people.affiliations import institution


def test_institution_is_the_first_one_folded():
    assert institution("Dept. of CS, MIT+Google") == "dept of cs mit"
    assert institution("ÉCOLE Normale  Supérieure") == "école normale supérieure"
    assert institution("") == ""
