# SPDX-License-Identifier: MIT OR Apache-2.0
"""Instruction-set targets other than the x86-64 backends of gen/fg/ (which
issue 56 moves here as targets/x86_64/). Each target is one package that
builds its kernel set from the field's analysis and returns its files."""
