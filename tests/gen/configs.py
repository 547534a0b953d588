# SPDX-License-Identifier: MIT OR Apache-2.0
"""The configs the generator's tests read.

Two kinds, kept apart so that a user's edit of fields.toml never breaks a test:

- FIXTURE (tests/gen/fixtures/shipped.toml): the shipped fields as the tests
  know them. Tests that assert facts about a particular prime (its form, its
  reduction, its constants) load this file, never fields.toml.
- repo_fields(): whatever fields.toml holds now. Tests of the committed
  generated/ tree and of the default command line (which reads fields.toml)
  compare against it, so they follow the config when a field is added or
  removed.
"""

import os

from fg import spec

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(HERE, "fixtures", "shipped.toml")
REPO_CONFIG = os.path.join(REPO, "fields.toml")


def fields_of(path):
    """{name: (modulus text, p, byte order)} of a fields file, in file order."""
    return {fs.name: (fs.modulus_text, fs.p, fs.byte_order) for fs in spec.load(path)}


def fixture_specs():
    return spec.load(FIXTURE)


def fixture_fields():
    return fields_of(FIXTURE)


def repo_fields():
    return fields_of(REPO_CONFIG)
