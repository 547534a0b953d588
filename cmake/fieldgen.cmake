# SPDX-License-Identifier: MIT OR Apache-2.0
# fieldgen's CMake functions, for fieldgen's own build and for its users:
# included by the top-level CMakeLists.txt (so add_subdirectory(fieldgen)
# provides them) and by the installed fieldgenConfig.cmake (find_package).
#
#   fieldgen_add_library(<target> CONFIG <fields.toml> [FIELDS <name>...] [NO_ASM])
#
# generates the config's fields (or the FIELDS among them) into
# ${CMAKE_CURRENT_BINARY_DIR}/fieldgen/<target>/ and builds the library
# <target> from them, with the generated headers and the runtime's on its
# usage requirements, linked to fieldgen::runtime (one runtime per program,
# however many such libraries it links). docs/integration.md.
#
# This file sits in <home>/cmake/: in the source tree <home> is the checkout,
# in an install prefix share/fieldgen/ (which holds gen/, templates/, runtime/
# and VERSION the same way).
include_guard(GLOBAL)
# (a global property: add_subdirectory's variables do not reach the parent)
get_filename_component(_fg_home "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set_property(GLOBAL PROPERTY FIELDGEN_HOME "${_fg_home}")

# FIELDGEN_PYTHON (cache): a Python 3.11+ with Jinja2 and PeachPy, found as
# gen/fieldgen's launcher finds one (Debian's /usr/bin/python3 first: the
# python3 first on PATH may be another interpreter without them); empty when
# none is found.
function(_fieldgen_find_python)
  set(FIELDGEN_PYTHON "${FIELDGEN_PYTHON}" CACHE FILEPATH "Python 3.11+ with Jinja2 and PeachPy (empty: search)")
  if(FIELDGEN_PYTHON)
    return()
  endif()
  set(_probe "import sys, tomllib, jinja2, peachpy; sys.exit(0 if sys.version_info >= (3, 11) else 1)")
  foreach(_cand /usr/bin/python3 python3 python3.13 python3.12 python3.11)
    find_program(_fg_py_${_cand} NAMES ${_cand} NO_CACHE)
    set(_exe "${_fg_py_${_cand}}")
    if(_exe)
      execute_process(COMMAND "${_exe}" -c "${_probe}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(FIELDGEN_PYTHON "${_exe}" CACHE FILEPATH "Python 3.11+ with Jinja2 and PeachPy (empty: search)" FORCE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

# A macro, so that enable_language(ASM) runs in the caller's directory scope
# (inside a function it would not define the language's rules); the work is
# _fieldgen_add_library's
macro(fieldgen_add_library _fg_target)
  set(_fg_args ${ARGN}) # a macro's ARGN is no variable
  # (before the generator has said which targets exist: every .S guards its
  # code by architecture, so assembling one for another does no harm)
  if(NOT "NO_ASM" IN_LIST _fg_args)
    if(NOT CMAKE_ASM_COMPILE_OBJECT) # not enabled in this directory (another's does not count)
      enable_language(ASM)
    endif()
  endif()
  _fieldgen_add_library(${_fg_target} ${ARGN})
endmacro()

function(_fieldgen_add_library target)
  cmake_parse_arguments(PARSE_ARGV 1 _fg "NO_ASM" "CONFIG" "FIELDS")
  if(_fg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "fieldgen_add_library(${target}): unknown arguments ${_fg_UNPARSED_ARGUMENTS} "
                        "(usage: fieldgen_add_library(<target> CONFIG <fields.toml> [FIELDS <name>...] [NO_ASM]))")
  endif()
  if(NOT _fg_CONFIG)
    message(FATAL_ERROR "fieldgen_add_library(${target}): CONFIG <fields.toml> is required")
  endif()
  get_filename_component(_config "${_fg_CONFIG}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${_config}")
    message(FATAL_ERROR "fieldgen_add_library(${target}): CONFIG ${_config} does not exist")
  endif()
  if(NOT TARGET fieldgen::runtime)
    message(FATAL_ERROR "fieldgen_add_library(${target}): no fieldgen::runtime target "
                        "(add_subdirectory(fieldgen) or find_package(fieldgen) first)")
  endif()
  get_property(FIELDGEN_HOME GLOBAL PROPERTY FIELDGEN_HOME)
  _fieldgen_find_python()
  set(_usable OFF)
  if(FIELDGEN_PYTHON)
    execute_process(COMMAND "${FIELDGEN_PYTHON}" -c
                    "import sys, tomllib, jinja2, peachpy; sys.exit(0 if sys.version_info >= (3, 11) else 1)"
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(_usable ON)
    endif()
  endif()
  if(NOT _usable)
    message(FATAL_ERROR "fieldgen_add_library(${target}): generating ${_config} needs a Python 3.11+ with "
                        "Jinja2 and PeachPy, and none was found (FIELDGEN_PYTHON='${FIELDGEN_PYTHON}'). On Debian/Ubuntu: "
                        "apt-get install python3-jinja2 python3-peachpy (they install for /usr/bin/python3); "
                        "or configure with -DFIELDGEN_PYTHON=/path/to/python3.")
  endif()

  set(_out "${CMAKE_CURRENT_BINARY_DIR}/fieldgen/${target}")
  set(_cmd ${FIELDGEN_PYTHON} -B ${FIELDGEN_HOME}/gen/fieldgen --config ${_config} --out ${_out})
  foreach(_f IN LISTS _fg_FIELDS)
    list(APPEND _cmd --field ${_f})
  endforeach()

  # Generate at configure time: which files a config yields (its fields, which
  # of them get assembly) only the generator knows, so CMake learns the list
  # from its fields.cmake, and a bad config fails here with the generator's
  # own message. The run is incremental (the manifest's keys): unchanged
  # fields are not rendered again.
  file(MAKE_DIRECTORY "${_out}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env FIELDGEN_PYTHON=${FIELDGEN_PYTHON} ${_cmd}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _log ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "fieldgen_add_library(${target}): generating ${_config} failed (exit ${_rc}):\n${_err}")
  endif()
  # a changed config can change the file list: re-run CMake
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_config}")
  set(FIELDGEN_FIELDS "")
  set(FIELDGEN_ASM_FIELDS "")
  set(FIELDGEN_TARGETS "")
  include("${_out}/fields.cmake")
  # Assembly: each target's (fields.cmake's table) on the processors it
  # builds for, unless NO_ASM or its option OFF says no (the option of this
  # build, or fieldgen_<option without FIELDGEN_>: an installed fieldgen's,
  # whose runtime then says FG_NO_ASM)
  set(_any_asm OFF)
  foreach(_t IN LISTS FIELDGEN_TARGETS)
    set(_opt ${FIELDGEN_TARGET_${_t}_OPTION})
    string(REGEX REPLACE "^FIELDGEN_" "fieldgen_" _rec ${_opt})
    set(_asm_${_t} ON)
    if(_fg_NO_ASM OR (DEFINED ${_opt} AND NOT ${_opt}) OR (DEFINED ${_rec} AND NOT ${_rec})
       OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "${FIELDGEN_TARGET_${_t}_PROCESSOR}")
      set(_asm_${_t} OFF)
    else()
      set(_any_asm ON)
    endif()
  endforeach()
  set(_fields ${FIELDGEN_FIELDS})
  if(_fg_FIELDS)
    set(_fields ${_fg_FIELDS})
  endif()

  set(_outputs "")
  set(_sources "")
  set(_incs "")
  foreach(_f IN LISTS _fields)
    list(APPEND _outputs ${_out}/${_f}/fg_${_f}.c ${_out}/${_f}/fg_${_f}.h)
    list(APPEND _sources ${_out}/${_f}/fg_${_f}.c)
    list(APPEND _incs ${_out}/${_f})
    foreach(_t IN LISTS FIELDGEN_TARGETS)
      if(_f IN_LIST FIELDGEN_TARGET_${_t}_FIELDS)
        set(_s ${_out}/${_f}/fg_${_f}_${_t}.S)
        list(APPEND _outputs ${_s})
        if(_asm_${_t})
          list(APPEND _sources ${_s})
        else() # listed (an output of the rule below), not assembled
          set_source_files_properties(${_s} PROPERTIES HEADER_FILE_ONLY ON)
        endif()
      endif()
    endforeach()
  endforeach()

  # ... and at build time again when the config, the generator or its
  # templates change (the same command, so the keys match the configure
  # run's). The generator rewrites only changed files; the touch marks every
  # output as current so the rule does not run again on the next build.
  file(GLOB_RECURSE _deps ${FIELDGEN_HOME}/gen/fg/*.py ${FIELDGEN_HOME}/gen/fg/*.j2)
  file(GLOB _deps_top ${FIELDGEN_HOME}/gen/fieldgen ${FIELDGEN_HOME}/templates/*.j2
       ${FIELDGEN_HOME}/VERSION)
  list(APPEND _deps ${_deps_top})
  add_custom_command(OUTPUT ${_outputs}
    COMMAND ${CMAKE_COMMAND} -E env FIELDGEN_PYTHON=${FIELDGEN_PYTHON} ${_cmd}
    COMMAND ${CMAKE_COMMAND} -E touch ${_outputs}
    DEPENDS ${_config} ${_deps}
    COMMENT "fieldgen: generating ${target} from ${_fg_CONFIG}"
    VERBATIM)

  add_library(${target} ${_sources} ${_outputs})
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${_incs}>")
  target_link_libraries(${target} PUBLIC fieldgen::runtime)
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
  if(NOT _any_asm)
    target_compile_definitions(${target} PUBLIC FG_NO_ASM)
  endif()
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND CMAKE_C_FLAGS MATCHES "-fcf-protection")
    string(REGEX MATCH "-fcf-protection(=[a-z]+)?" _cet "${CMAKE_C_FLAGS}")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:ASM>:${_cet}>)
  endif()
  set(${target}_FIELDGEN_FIELDS ${_fields} PARENT_SCOPE)
endfunction()
