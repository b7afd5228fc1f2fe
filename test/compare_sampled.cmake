# `roofline compare A.rfs B.rfs --fail-if total:+5%` where B's steps take twice as long: the
# between-kernels record holds the difference, the gate fails, the exit status is 3.
execute_process(COMMAND ${CLI} compare ${A} ${B} --fail-if total:+5% --fail-if time:+10%
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "exit ${rc}, not 3:\n${out}${err}")
endif()
if(NOT out MATCHES "between kernels +\\(median step\\) +7000.0 +19000.0"
   OR NOT out MATCHES "total:\\+5%  \\(total\\): 12000.0 us -> 24000.0 us")
  message(FATAL_ERROR "not the expected comparison:\n${out}")
endif()
message("compare sampled: exit 3, the slower steps' gate failed")
