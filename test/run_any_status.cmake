# Runs COMMAND with the arguments in ARGS (a list) and prints what it wrote and its exit status
# ("exit status N"), whatever that is: for CLI tests that check a failure's message and status.
#   cmake -DCOMMAND=... "-DARGS=a;b;c" -P run_any_status.cmake
execute_process(COMMAND "${COMMAND}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("${out}${err}(exit status ${rc})")
