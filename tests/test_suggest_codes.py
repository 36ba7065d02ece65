"""Issue 48 item 1: codes of mixed length and form (ZIP+4 beside ZIP), code or quantity."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.exceptions import HierarchyError
from kanon_graph.hierarchy import masking


def _clinic_zips(n=2000, seed=5):
    """ZIPs of a few areas, about half written as ZIP+4."""
    rng = np.random.default_rng(seed)
    heads = [f"{z:05d}" for z in rng.choice(np.arange(2100, 2400), 40, replace=False)]
    zips = rng.choice(heads, n)
    plus4 = rng.random(n) < 0.5
    return [f"{z}-{rng.integers(0, 10000):04d}" if p else z for z, p in zip(zips, plus4)]


def test_zip_plus4_beside_zip_drafts_zip5_then_masks():
    table = pd.DataFrame({"zip": _clinic_zips()})
    h, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["zip"]))["zip"]
    plus4 = next(z for z in table["zip"] if "-" in z)
    head = plus4[:5]
    assert h.ancestors(plus4) == [plus4, head + "*", head[:4] + "*", head[:3] + "**",
                                  head[:2] + "***", head[:1] + "****", "*****"]
    plain = next(z for z in table["zip"] if "-" not in z)
    assert h.ancestors(plain)[1:] == [plain + "*", plain[:4] + "*", plain[:3] + "**",
                                     plain[:2] + "***", plain[:1] + "****", "*****"]
    assert "suffix" in note
    # the draft releases ZIP3 / ZIP5 areas rather than '*' at k = 10
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["zip"], hierarchies={"zip": h}),
                       k=10, seed=0)
    assert res.verification.holds
    released = res.table["zip"].astype(str)
    assert (~released.isin(["*", "*****"])).mean() > 0.9
    assert released.str.fullmatch(r"\d{5}\*?").mean() > 0.5     # ZIP5 or finer


def test_masking_takes_suffixed_codes_and_names_the_remedy_for_others():
    h = masking(["02139-4307", "02139", "10001"], levels=2, name="zip")
    assert h.ancestors("02139-4307") == ["02139-4307", "02139*", "0213*", "021**", "*"]
    assert h.leaves("02139*") == ["02139", "02139-4307"]
    with pytest.raises(HierarchyError, match=r"levels must be in \[1, 5\]"):
        masking(["02139-4307", "02139"], levels=6, name="zip")
    with pytest.raises(HierarchyError, match=r"pad them to 5 digits .*'2139' -> '02139'"):
        masking(["2139", "10001"], name="zip")
    # the remedy works: padded, the same codes are masked
    assert masking([z.zfill(5) for z in ["2139", "10001"]]).ancestors("02139")[1] == "0213*"


def test_cli_build_mask_handles_zip_plus4(tmp_path, capsys):
    pd.DataFrame({"zip": ["02139-4307", "02139", "02141-0001", "10001"]}).to_csv(
        tmp_path / "z.csv", index=False)
    assert main(["hierarchy", "build", "--mask", "3", "--values-from", str(tmp_path / "z.csv"),
                 "--column", "zip", "-o", str(tmp_path / "zip.csv")]) == 0
    rows = (tmp_path / "zip.csv").read_text().splitlines()
    assert "02139-4307;02139*;0213*;021**;02***;*" in rows


def test_integer_codes_are_told_from_quantities():
    rng = np.random.default_rng(2)
    table = pd.DataFrame({
        "zip": rng.choice(["18180", "11630", "13635", "12753", "12668"], 300),   # text
        "isco": rng.choice([2231, 3143, 8212, 6312, 9332, 1214], 300),          # integers
        "visits": rng.integers(1, 400, 300),                                     # a quantity
    })
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=list(table)))
    assert made["zip"][0].ancestors("18180")[1:3] == ["1818*", "181**"]
    assert made["isco"][0].ancestors(2231)[1:3] == ["223*", "22**"]
    assert "code" in made["zip"][1] and "4 digits" in made["isco"][1]
    assert "quantity" in made["visits"][1] and "1 to 3 digits" in made["visits"][1]
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=list(table),
                                        hierarchies={c: h for c, (h, _) in made.items()}),
                       k=5, seed=0)
    assert res.verification.holds
