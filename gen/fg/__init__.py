# SPDX-License-Identifier: MIT OR Apache-2.0
"""fieldgen: fields.toml -> specialized C and assembly for prime fields.

Stages: spec (parse + validate) -> analysis (constants and decisions) ->
each target's plan (targets/: x86_64 with PeachPy, aarch64; the kernels and
the dispatch plan) -> emitters (emit_c: Jinja2 templates; each target's
emit: its .S; vectors: known answers). cli ties them together and writes
generated/ atomically.
"""
