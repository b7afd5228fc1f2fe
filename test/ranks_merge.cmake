# Several processes of one job on an H100 80GB HBM3, with the training step:
#  1. two "ranks" (RANK=0/1, one after the other: hardware counters serve one process at a time)
#     save run-%r.rfl, which roofline merge puts in one recording and report shows per rank;
#  2. two processes started together with the same output path (timing only, so both run at
#     once): both recordings are kept, the second beside the first under its pid.
# Skips, saying so, where no CUDA device is usable.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
foreach(rank 0 1)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env RANK=${rank} WORLD_SIZE=2
    "ROOFLINE_OUTPUT=${DIR}/run-%r.rfl" ROOFLINE_PUSH_POP_SCOPE=process
    "${EXE}" --layers 2 --steps 1 --profile
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 AND "${out}${err}" MATCHES "CUDA driver version is insufficient|no CUDA-capable device|no CUDA device")
    message("SKIPPED no CUDA device: ${err}")
    return()
  endif()
  if(NOT rc EQUAL 0 OR NOT EXISTS "${DIR}/run-${rank}.rfl")
    message(FATAL_ERROR "rank ${rank}: exit status ${rc}, no ${DIR}/run-${rank}.rfl\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND "${CLI}" merge "${DIR}/run-0.rfl" "${DIR}/run-1.rfl" -o "${DIR}/run.rfl"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "rank 0: [0-9]+ launches from .*run-0.rfl \\(rank 0 of 2 \\(RANK\\)")
  message(FATAL_ERROR "roofline merge failed (exit status ${rc})")
endif()
execute_process(COMMAND "${CLI}" report "${DIR}/run.rfl" RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "ranks +2 \\(merged recording\\).*rank +0 .*rank +1 ")
  message(FATAL_ERROR "the merged recording does not report per rank (exit status ${rc})")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env ROOFLINE_TIMING_ONLY=1
  "ROOFLINE_OUTPUT=${DIR}/same.rfl" sh -c "\"$0\" --layers 2 --steps 1 --profile & \"$0\" --layers 2 --steps 1 --profile & wait"
  "${EXE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
file(GLOB same "${DIR}/same*.rfl")
list(LENGTH same kept)
if(NOT kept EQUAL 2)
  message(FATAL_ERROR "two processes saving to one path left ${kept} recording(s): ${same}")
endif()
message("ranks: run-0.rfl and run-1.rfl merged and reported per rank; two processes with one path kept both recordings")
