# `roofline run` on the GPU machine (issue 14), with test/gpu/injected_app.cu, a CUDA program that
# has no libroofline in it:
#  1. steps with NVTX ranges, a captured CUDA graph, and a forked child that never touches CUDA
#     and exits normally: one recording (the child's exit saves nothing), FLOPs exact, graph
#     kernels named in the graph's scope (test/gpu/check_run.py); in kernel replay also timed;
#  2. the same steps on a second thread, under two wrappers that never initialize CUDA
#     (`sh -c` and `time`): one recording, from the program;
#  3. a program that initializes CUDA and launches nothing: no recording.
# Skips, saying so, where no CUDA device is usable.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

function(count_recordings pattern out)
  file(GLOB found "${DIR}/${pattern}")
  list(LENGTH found n)
  set(${out} ${n} PARENT_SCOPE)
  set(${out}_files "${found}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND "${CLI}" run -o "${DIR}/app-%p.rfl" -- "${APP}" 30 --graph --fork
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 AND "${out}${err}" MATCHES "no CUDA-capable device|CUDA driver version is insufficient")
  message("SKIPPED no CUDA device")
  return()
endif()
count_recordings("app-*.rfl" n)
if(NOT rc EQUAL 0 OR NOT n EQUAL 1)
  message(FATAL_ERROR "roofline run: exit status ${rc}, ${n} recording(s) instead of 1: ${n_files}")
endif()
if(NOT err MATCHES "\\[roofline\\] profiling pid [0-9]+ on .*saved to ${DIR}/app-[0-9]+.rfl")
  message(FATAL_ERROR "roofline run did not say where the recording went")
endif()
execute_process(COMMAND "${CLI}" report ${n_files} --group-by launch --csv "${DIR}/app.csv"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
execute_process(COMMAND python3 "${SRC}/gpu/check_run.py" "${DIR}/app.csv" --graph RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the injected recording is wrong (check_run.py)")
endif()

execute_process(COMMAND "${CLI}" run --mode kernel -o "${DIR}/kernel-%p.rfl" -- "${APP}" 4 --graph
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
count_recordings("kernel-*.rfl" n)
if(NOT rc EQUAL 0 OR NOT n EQUAL 1)
  message(FATAL_ERROR "roofline run --mode kernel: exit status ${rc}, ${n} recording(s)\n${out}${err}")
endif()
execute_process(COMMAND "${CLI}" report ${n_files} --group-by launch --csv "${DIR}/kernel.csv"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
execute_process(COMMAND python3 "${SRC}/gpu/check_run.py" "${DIR}/kernel.csv" --graph --timed-graph
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the kernel-replay recording of the graph program is wrong (check_run.py)")
endif()

set(time_cmd "")
if(EXISTS /usr/bin/time)
  set(time_cmd "/usr/bin/time -p") # one string: it goes into the sh -c command line
endif()
execute_process(COMMAND "${CLI}" run -o "${DIR}/wrapped-%p.rfl" -- sh -c "${time_cmd} \"$0\" 30 --thread; true" "${APP}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
count_recordings("wrapped-*.rfl" n)
if(NOT rc EQUAL 0 OR NOT n EQUAL 1)
  message(FATAL_ERROR "under wrappers: exit status ${rc}, ${n} recording(s) instead of 1: ${n_files}")
endif()
execute_process(COMMAND "${CLI}" report ${n_files} --group-by launch --csv "${DIR}/wrapped.csv"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
execute_process(COMMAND python3 "${SRC}/gpu/check_run.py" "${DIR}/wrapped.csv" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the recording from a second thread under wrappers is wrong")
endif()

execute_process(COMMAND "${CLI}" run -o "${DIR}/query-%p.rfl" -- "${APP}" --query
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
count_recordings("query-*.rfl" n)
if(NOT rc EQUAL 0 OR NOT n EQUAL 0)
  message(FATAL_ERROR "a process that launched nothing: exit status ${rc}, ${n} recording(s)")
endif()
message("roofline run: one recording per profiled program, none from wrappers, forked children or a process that launched nothing")
