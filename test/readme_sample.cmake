# The sample output in README.md is what the command it names prints: the block after the
# `<!-- readme-sample: COLUMNS=N roofline report FILE -->` marker must appear, line for line, in
# the output of `roofline report FILE` at that width.
# DOC (default README.md) may name the command's options after the file:
# `<!-- readme-sample: COLUMNS=N roofline report FILE --top 8 -->`.
#   cmake -DCLI=... -DROOT=... [-DDOC=docs/reading-the-report.md] -P readme_sample.cmake
if(NOT DOC)
  set(DOC README.md)
endif()
file(READ "${ROOT}/${DOC}" readme)
string(REGEX MATCH "<!-- readme-sample: COLUMNS=([0-9]+) roofline report ([^ ]+)([^>]*) -->\n```\n([^`]*)```"
  found "${readme}")
if(NOT found)
  message(FATAL_ERROR "${DOC} has no readme-sample block")
endif()
set(columns "${CMAKE_MATCH_1}")
set(file "${CMAKE_MATCH_2}")
string(STRIP "${CMAKE_MATCH_3}" options)
separate_arguments(options UNIX_COMMAND "${options}")
set(sample "${CMAKE_MATCH_4}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env COLUMNS=${columns} ROOFLINE_CEILINGS_DIR=/nonexistent
  "${CLI}" report "${ROOT}/${file}" ${options} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "roofline report ${file} failed (${rc}): ${err}")
endif()
string(FIND "${out}" "${sample}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC}'s sample is not what `COLUMNS=${columns} roofline report ${file}` "
    "prints now; paste this in its place:\n${out}")
endif()
message("readme sample: ${DOC}'s block is the command's output")
