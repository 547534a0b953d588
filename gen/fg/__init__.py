# SPDX-License-Identifier: MIT OR Apache-2.0
"""fieldgen: fields.toml -> specialized C and x86-64 assembly for prime fields.

Stages: spec (parse + validate) -> analysis (constants and decisions) ->
emitters (emit_c: Jinja2 templates; emit_x86_64: PeachPy; vectors: known
answers). cli ties them together and writes generated/ atomically.
"""
