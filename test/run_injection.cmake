# `roofline run` on an H100 80GB HBM3, with test/gpu/injected_app.cu, a CUDA program that
# has no libroofline in it:
#  1. steps with NVTX ranges, a captured CUDA graph, and a forked child that never touches CUDA
#     and exits normally: one recording (the child's exit saves nothing), FLOPs exact, graph
#     kernels (launched as their nodes) exact too in the graph's scope (test/gpu/check_run.py);
#     in kernel replay, where every launch has a record, measured;
#  2. the same steps on a second thread, under two wrappers that never initialize CUDA
#     (`sh -c` and `time`): one recording, from the program;
#  3. a program that initializes CUDA and launches nothing: no recording.
# Skips, saying so, where no CUDA device is usable.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

# `roofline run -o DIR/<name>-%p.rfl -- ARGN`; its output in run_out, its exit status in run_rc.
function(profile name)
  execute_process(COMMAND "${CLI}" run -o "${DIR}/${name}-%p.rfl" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  set(run_out "${out}${err}" PARENT_SCOPE)
  set(run_rc ${rc} PARENT_SCOPE)
endfunction()

# The run `name` exited 0 and left exactly one recording, which check_run.py accepts with ARGN.
function(expect_one_recording name)
  file(GLOB found "${DIR}/${name}-*.rfl")
  list(LENGTH found n)
  if(NOT run_rc EQUAL 0 OR NOT n EQUAL 1)
    message(FATAL_ERROR "${name}: exit status ${run_rc}, ${n} recording(s) instead of 1: ${found}")
  endif()
  execute_process(COMMAND "${CLI}" report ${found} --group-by launch --csv "${DIR}/${name}.csv"
    RESULT_VARIABLE rc OUTPUT_QUIET)
  execute_process(COMMAND python3 "${SRC}/gpu/check_run.py" "${DIR}/${name}.csv" ${ARGN}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: the recording is wrong (check_run.py ${ARGN})")
  endif()
endfunction()

profile(app -- "${APP}" 30 --graph --fork)
if(NOT run_rc EQUAL 0 AND run_out MATCHES "no CUDA-capable device|CUDA driver version is insufficient")
  message("SKIPPED no CUDA device")
  return()
endif()
expect_one_recording(app)
if(NOT run_out MATCHES "\\[roofline\\] profiling pid [0-9]+ on .*saved to ${DIR}/app-[0-9]+.rfl")
  message(FATAL_ERROR "roofline run did not say where the recording went")
endif()

profile(kernel --mode kernel -- "${APP}" 4 --graph)
expect_one_recording(kernel --measured-graph)

set(time_cmd "")
if(EXISTS /usr/bin/time)
  set(time_cmd "/usr/bin/time -p") # one string: it goes into the sh -c command line
endif()
# "&& exit 0" keeps sh alive as the parent (no exec of the last command); a ";" would split
# the argument in two (a CMake list)
profile(wrapped -- sh -c "${time_cmd} \"$0\" 30 --thread && exit 0" "${APP}")
expect_one_recording(wrapped)

profile(query -- "${APP}" --query)
file(GLOB found "${DIR}/query-*.rfl")
if(NOT run_rc EQUAL 0 OR found)
  message(FATAL_ERROR "a process that launched nothing: exit status ${run_rc}, recordings: ${found}")
endif()
message("roofline run: one recording per profiled program, none from wrappers, forked children or a process that launched nothing")
