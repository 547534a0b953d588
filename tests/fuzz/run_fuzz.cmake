# SPDX-License-Identifier: MIT OR Apache-2.0
# One bounded libFuzzer run for CTest:
#   cmake -DFUZZER=exe -DSEEDS=committed_corpus -DWORK=dir -DSECONDS=n -P run_fuzz.cmake
# Copies the committed seed corpus to WORK/corpus (libFuzzer adds new inputs
# to its first corpus directory; the committed one stays untouched), then runs
# with a fixed seed. A crash input is written to WORK/ (crash-*).
foreach(_v FUZZER SEEDS WORK SECONDS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "run_fuzz.cmake: -D${_v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK}/corpus)
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB _seed_files ${SEEDS}/*)
file(COPY ${_seed_files} DESTINATION ${WORK}/corpus)
execute_process(COMMAND ${FUZZER} -seed=1 -max_total_time=${SECONDS} -timeout=60 -print_final_stats=1
                        -artifact_prefix=${WORK}/ ${WORK}/corpus
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${_rc}); the input that failed is in ${WORK}/ (crash-*, timeout-*, oom-*); "
                      "rerun it with: ${FUZZER} ${WORK}/crash-...")
endif()
