"""Validates presets against the preset JSON Schema with Python's jsonschema (Draft 2020-12), an
implementation independent of AugLab. Used by tests/test_preset.cpp; also handy by hand:

    python3 tests/data/presets/validate_schema.py presets/auglab-preset.schema.json presets/*.auglab.json

Prints "FILE<TAB>valid" or "FILE<TAB>invalid<TAB>reason" per file. Exit 3: jsonschema is missing.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit(3)

with open(sys.argv[1], encoding="utf-8") as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        errors = list(validator.iter_errors(json.load(f)))
    reason = errors[0].message.replace("\n", " ")[:200] if errors else ""
    print(path + "\t" + ("invalid\t" + reason if errors else "valid"))
