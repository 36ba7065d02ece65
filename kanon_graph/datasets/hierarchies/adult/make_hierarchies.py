"""Write the project's Adult hierarchies (``adult_hierarchy_<column>.csv``).

Run from anywhere: ``python kanon_graph/datasets/hierarchies/adult/make_hierarchies.py``.
The CSV files are committed and ship in the wheel as package data; this script
only documents how they were made and lets them be regenerated; the package
never imports it. The groupings are this
project's own (see ``README.md`` beside this file for what each level means).
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent


def age_rows():
    """Ages 1..100: 5-, 10-, 20-year bands, three life spans, then ``*`` (height 5)."""

    def band(age, width):
        lo = max(1, (age // width) * width)
        hi = min(100, (age // width) * width + width - 1)
        if age == 100:  # the last band of every width closes at 100
            lo = max(1, 100 - width)
            hi = 100
        elif hi == 99:
            hi = 100
        return f"[{lo}-{hi}]"

    def span(age):
        return "[1-39]" if age < 40 else ("[40-79]" if age < 80 else "[80-100]")

    return [[str(a), band(a, 5), band(a, 10), band(a, 20), span(a), "*"]
            for a in range(1, 101)]


def grouped(groups):
    """Rows from nested ``{top: {middle: [leaves]}}`` style tuples, leaf first."""
    rows = []

    def walk(node, path):
        if isinstance(node, dict):
            for label, child in node.items():
                walk(child, [label] + path)
        else:
            for leaf in node:
                rows.append([leaf] + path + ["*"])

    walk(groups, [])
    return rows


SEX = {"Male": ["Male"], "Female": ["Female"]}

RACE = ["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"]

SALARY = ["<=50K", ">50K"]

# height 3: marital-status -> living arrangement -> married or not -> *
MARITAL = {
    "Married": {
        "Spouse present": ["Married-civ-spouse", "Married-AF-spouse"],
        "Spouse absent": ["Married-spouse-absent", "Separated"],
    },
    "Not married": {
        "Previously married": ["Divorced", "Widowed"],
        "Never married": ["Never-married"],
    },
}

# height 4: degree -> stage -> school type -> tertiary or not -> *
EDUCATION = {
    "No tertiary education": {
        "Primary school": {
            "Elementary": ["Preschool", "1st-4th", "5th-6th"],
            "Middle school": ["7th-8th", "9th"],
        },
        "High school": {
            "High school, no diploma": ["10th", "11th", "12th"],
            "High school diploma": ["HS-grad"],
        },
    },
    "Tertiary education": {
        "College": {
            "College, no degree": ["Some-college"],
            "Associate degree": ["Assoc-voc", "Assoc-acdm"],
            "Bachelor's degree": ["Bachelors"],
        },
        "Graduate school": {
            "Master's degree": ["Masters"],
            "Professional or doctoral degree": ["Prof-school", "Doctorate"],
        },
    },
}

# height 3: country -> world region -> continent -> *
COUNTRY = {
    "Americas": {
        "Northern America": ["United-States", "Canada", "Outlying-US(Guam-USVI-etc)"],
        "Central America": ["Mexico", "Guatemala", "Honduras", "Nicaragua", "El-Salvador"],
        "Caribbean": ["Cuba", "Dominican-Republic", "Haiti", "Jamaica", "Puerto-Rico",
                      "Trinadad&Tobago"],
        "South America": ["Columbia", "Ecuador", "Peru"],
    },
    "Europe": {
        "Western Europe": ["England", "Scotland", "Ireland", "France", "Germany",
                           "Holand-Netherlands"],
        "Southern Europe": ["Italy", "Portugal", "Greece", "Yugoslavia"],
        "Eastern Europe": ["Poland", "Hungary"],
    },
    "Asia": {
        "East Asia": ["China", "Hong", "Japan", "Taiwan", "South"],
        "Southeast Asia": ["Cambodia", "Laos", "Philippines", "Thailand", "Vietnam"],
        "South and West Asia": ["India", "Iran"],
    },
}

# height 3: class of worker -> employer -> sector -> *
WORKCLASS = {
    "Private sector": {
        "Private company": ["Private"],
        "Self-employed": ["Self-emp-not-inc", "Self-emp-inc"],
    },
    "Public sector": {
        "Federal government": ["Federal-gov"],
        "State or local government": ["State-gov", "Local-gov"],
    },
    "Unpaid": {
        "No pay": ["Without-pay", "Never-worked"],
    },
}

# height 2: occupation -> major group of the 1990 US census occupation scheme -> *
OCCUPATION = {
    "Managerial and professional": ["Exec-managerial", "Prof-specialty"],
    "Technical, sales and administrative support": ["Tech-support", "Sales",
                                                    "Adm-clerical"],
    "Service": ["Other-service", "Protective-serv", "Priv-house-serv"],
    "Farming, forestry and fishing": ["Farming-fishing"],
    "Precision production, craft and repair": ["Craft-repair"],
    "Operators, fabricators and laborers": ["Machine-op-inspct", "Transport-moving",
                                            "Handlers-cleaners"],
    "Military": ["Armed-Forces"],
}


def hierarchies():
    """``{column: rows}`` for the nine Adult columns."""
    return {
        "sex": [[v, "*"] for v in SEX],
        "age": age_rows(),
        "race": [[v, "*"] for v in RACE],
        "marital-status": grouped(MARITAL),
        "education": grouped(EDUCATION),
        "native-country": grouped(COUNTRY),
        "workclass": grouped(WORKCLASS),
        "occupation": grouped(OCCUPATION),
        "salary-class": [[v, "*"] for v in SALARY],
    }


def main():
    for column, rows in hierarchies().items():
        widths = {len(r) for r in rows}
        assert len(widths) == 1, (column, widths)
        text = "\n".join(";".join(r) for r in rows) + "\n"
        (HERE / f"adult_hierarchy_{column}.csv").write_text(text, encoding="utf-8")
        print(f"{column}: {len(rows)} leaves, height {widths.pop() - 1}")


if __name__ == "__main__":
    main()
