#!/usr/bin/env bash
# `roofline run` on any machine (no GPU needed): the environment it gives the program, its refusals
# (a malformed option, another injection tool, a missing program), and a program that never
# initializes CUDA leaves no recording behind.
#   run_command.sh ROOFLINE
set -uo pipefail
R="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
check() { # check WHAT CONDITION-RESULT
  if [[ "$2" != 0 ]]; then
    echo "FAIL: $1"
    fail=1
  fi
}

out="$("$R" run --dry-run --mode kernel -o 'r-%p.rfl' --reuse 0 --nvtx-include 'step/' --graph-nodes 0 --share-ranks 1 -- python3 t.py --x 1)"
grep -q '^CUDA_INJECTION64_PATH=/.*libroofline\.so' <<<"$out"; check "CUDA_INJECTION64_PATH set to libroofline.so" $?
grep -q '^NVTX_INJECTION64_PATH=/.*libroofline\.so' <<<"$out"; check "NVTX_INJECTION64_PATH set" $?
grep -q '^ROOFLINE_PUSH_POP_SCOPE=process$' <<<"$out"; check "process scopes by default" $?
grep -q '^ROOFLINE_MODE=kernel$' <<<"$out"; check "--mode -> ROOFLINE_MODE" $?
grep -q '^ROOFLINE_OUTPUT=r-%p.rfl$' <<<"$out"; check "-o -> ROOFLINE_OUTPUT" $?
grep -q '^ROOFLINE_NVTX_INCLUDE=step/$' <<<"$out"; check "--nvtx-include -> ROOFLINE_NVTX_INCLUDE" $?
grep -q '^ROOFLINE_GRAPH_NODES=0$' <<<"$out"; check "--graph-nodes -> ROOFLINE_GRAPH_NODES" $?
grep -q '^ROOFLINE_SHARE_RANKS=1$' <<<"$out"; check "--share-ranks -> ROOFLINE_SHARE_RANKS" $?
grep -q '^python3 t.py --x 1$' <<<"$out"; check "the command and its own options pass through" $?

out="$("$R" run --dry-run --push-pop-scope thread -- true)"
grep -q '^ROOFLINE_PUSH_POP_SCOPE=thread$' <<<"$out"; check "--push-pop-scope thread kept" $?

err="$("$R" run --mode bogus -- true 2>&1)"; rc=$?
[[ $rc == 2 ]] && grep -q "ROOFLINE_MODE='bogus'" <<<"$err"; check "a malformed option is refused before the program runs (exit $rc: $err)" $?

err="$(CUDA_INJECTION64_PATH=/opt/other/libtool.so "$R" run -- true 2>&1)"; rc=$?
[[ $rc == 1 ]] && grep -q "another tool injects" <<<"$err"; check "another injection tool is refused (exit $rc: $err)" $?

err="$("$R" run -- ./no-such-program 2>&1)"; rc=$?
[[ $rc == 127 ]] && grep -q "cannot run './no-such-program'" <<<"$err"; check "a missing program exits 127 (exit $rc: $err)" $?

err="$("$R" run --library /nonexistent/libroofline.so -- true 2>&1)"; rc=$?
[[ $rc == 2 ]] && grep -q "no such readable file" <<<"$err"; check "a missing --library is refused (exit $rc)" $?

"$R" run -o 'x-%p.rfl' -- sh -c 'exit 3'; rc=$?
[[ $rc == 3 ]]; check "the program's exit status is roofline run's (got $rc)" $?
ls x-*.rfl >/dev/null 2>&1 && check "a program that never initializes CUDA leaves no recording" 1

err="$("$R" run -- true 2>&1)"; rc=$?
[[ $rc == 0 ]] && grep -q "'true' exited with status 0; no process of it launched a CUDA kernel, so there is no recording" <<<"$err"
check "a program without kernels is told, not silent (exit $rc: $err)" $?
"$R" run -- sh -c 'kill -TERM $$' 2>/dev/null; rc=$?
[[ $rc == 143 ]]; check "a program ended by SIGTERM ends roofline run the same way (got $rc)" $?
"$R" run -- sh -c 'trap "exit 7" TERM; kill -TERM $PPID; sleep 5 & wait' 2>/dev/null; rc=$?
[[ $rc == 7 ]]; check "SIGTERM sent to roofline run reaches the program (got $rc)" $?

[[ $fail == 0 ]] && echo "roofline run: environment, refusals and exit status as documented"
exit $fail
