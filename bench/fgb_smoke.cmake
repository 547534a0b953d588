# SPDX-License-Identifier: MIT OR Apache-2.0
# CTest fieldgen.bench.smoke (bench/CMakeLists.txt): fieldgen-bench's shortest
# run (--quick, mul and sqr, no threads) prints its timing table, with a row of
# figures for every field at every level asked for and for every peer expected.
# Cheap enough for the qemu-user CI (.ci/aarch64.sh), so that the AArch64 bench
# stays built and running. Never a speed threshold.
#   cmake -DBENCH=exe [-DEMULATOR=cmd] -DFIELDS=a,b -DLEVELS=dispatch,c,...
#         [-DPEERS=field:impl,...] -P fgb_smoke.cmake
foreach(v BENCH FIELDS LEVELS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "fgb_smoke.cmake: -D${v}=... missing")
  endif()
endforeach()
string(REPLACE "," ";" _fields "${FIELDS}")
string(REPLACE "," ";" _levels "${LEVELS}")
string(REPLACE "," ";" _peers "${PEERS}")
string(REPLACE " " ";" _emulator "${EMULATOR}")

execute_process(COMMAND ${_emulator} ${BENCH} --quick --op mul,sqr --threads 0
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
set(_missing "")
# a table row: field, op, impl, level, then a latency median and its [min-max]
macro(_expect field op impl level)
  if(NOT out MATCHES "\n${field} +${op} +${impl} +${level} +[0-9][0-9.]* \\[[0-9.]+-[0-9.]+\\] ")
    list(APPEND _missing "${field} ${op} ${impl} ${level}")
  endif()
endmacro()
foreach(f IN LISTS _fields)
  foreach(op mul sqr)
    foreach(lv IN LISTS _levels)
      _expect(${f} ${op} fieldgen ${lv})
    endforeach()
    foreach(p IN LISTS _peers)
      if(p MATCHES "^${f}:(.+)$")
        _expect(${f} ${op} "${CMAKE_MATCH_1}" "[a-z0-9_]+")
      endif()
    endforeach()
  endforeach()
endforeach()
if(NOT rc EQUAL 0 OR out MATCHES "CHECK FAILED|ERROR" OR err MATCHES "ERROR" OR _missing)
  message("${out}\n${err}")
  list(JOIN _missing "\n  " _m)
  message(FATAL_ERROR "fieldgen.bench.smoke: exit status ${rc}; rows missing:\n  ${_m}")
endif()
string(REGEX MATCH "fieldgen-bench: [^\n]*\n" _unit "${out}")
list(LENGTH _fields nf)
message("fieldgen.bench.smoke: ok, ${nf} fields, levels ${LEVELS}, peers ${PEERS}; ${_unit}")
