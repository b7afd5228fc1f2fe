# Runs roofline_exit_flush in one mode, then checks that its recording exists and evaluates.
file(REMOVE "${OUTPUT}")
execute_process(COMMAND "${EXE}" "${MODE}" "${OUTPUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("${out}${err}")
if(out MATCHES "SKIPPED")
  message("SKIPPED no CUDA device")
  return()
endif()
# Returning from main with a session still running ends the program as it would end unprofiled.
if(MODE STREQUAL "exit" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "the program returned from main, yet exited with status ${rc}")
endif()
if(NOT EXISTS "${OUTPUT}")
  message(FATAL_ERROR "no recording at ${OUTPUT} after '${MODE}' (exit status ${rc})")
endif()
execute_process(COMMAND "${CLI}" report "${OUTPUT}" RESULT_VARIABLE rc2 OUTPUT_VARIABLE report
  ERROR_VARIABLE report_err)
message("${report}${report_err}")
if(NOT rc2 EQUAL 0 OR NOT report MATCHES "before_exit")
  message(FATAL_ERROR "the recording written at ${MODE} does not evaluate")
endif()
message("exit flush (${MODE}): recording saved and evaluated")
