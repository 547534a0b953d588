# SPDX-License-Identifier: MIT OR Apache-2.0
# FIELDGEN_VERIFY: the checked build (docs/verify.md). Every public function
# of every field asserts its input contract and aborts with a message naming
# the function; for debugging only: the checks branch on the values, so the
# build is not constant time and the ct label is left empty.
option(FIELDGEN_VERIFY "Checked build: every public function asserts its input contract and aborts naming the function (debugging only; not constant time; docs/verify.md)" OFF)
if(FIELDGEN_VERIFY)
  add_compile_definitions(FG_VERIFY=1)
  if(FIELDGEN_CT)
    message(STATUS "fieldgen: FIELDGEN_VERIFY=ON is not constant time: the ct label stays empty")
    set(FIELDGEN_CT OFF)
  endif()
endif()
