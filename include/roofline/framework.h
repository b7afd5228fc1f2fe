/* libroofline's entry points for framework hooks: what a framework (PyTorch, through
 * libroofline's hook in share/roofline/python) tells libroofline about the code that launches
 * kernels -- modules, facts about the run, compiled graphs -- and asks of it: whether a profile
 * collects now. Plain C, so that any language binds it; the PyTorch hook reads this very file to
 * bind these functions (ctypes), so each declaration keeps to one line of the form
 * `ret roofline_name(args);` with ret `int` or `void` and arguments `void`, `int` or
 * `const char*`.
 *
 * Every function is safe to call from any thread at any time, with or without a session: none
 * blocks on a session, throws, or keeps a pointer it was given. Strings are copied (and cut at
 * the bounds each function states).
 *
 *     if (roofline_profile_state() == ROOFLINE_PROFILE_COLLECTING)
 *         roofline_module_enter("encoder.layers.3.linear1", 0);
 */
#ifndef ROOFLINE_FRAMEWORK_H
#define ROOFLINE_FRAMEWORK_H

#define ROOFLINE_FRAMEWORK_API 4

/* roofline_profile_state() */
#define ROOFLINE_PROFILE_NOT_STARTED 0 /* no session yet: `roofline run` starts one at the first kernel launch */
#define ROOFLINE_PROFILE_COLLECTING 1  /* counters are being collected: name what runs */
#define ROOFLINE_PROFILE_COMPLETE 2    /* every launch of the iteration measured: libroofline is idle */
#define ROOFLINE_PROFILE_STOPPED 3     /* the session stopped */
#define ROOFLINE_PROFILE_SAMPLING 4    /* every step is sampled (--mode sample): only the steps' ends are wanted */

#ifdef __cplusplus
extern "C" {
#endif

/* ROOFLINE_FRAMEWORK_API of the library loaded: a hook written for another version binds nothing. */
int roofline_framework_api(void);
/* 1 when ROOFLINE_TORCH_HOOK allows the PyTorch hook (unset, 1, on, true, yes), else 0. */
int roofline_torch_hook_enabled(void);
/* One of ROOFLINE_PROFILE_*: a plain atomic read. */
int roofline_profile_state(void);
/* The module at `path` begins its forward on this thread; `top` 1 for a top-level module, whose
 * path is its class name and no prefix of its submodules' paths ("GPT"; "blocks.0.attn"). */
void roofline_module_enter(const char* path, int top);
/* The innermost module begun on this thread ends its forward. */
void roofline_module_exit(void);
/* A fact about the run for the recording ("torch" -> "2.11.0+cu130"): up to 64 keys, values cut at
 * 256 characters. */
void roofline_framework_fact(const char* key, const char* value);
/* A compiled graph (torch.compile: Inductor's output code, called under the NVTX range
 * "## Call CompiledFxGraph <graph> ##"): one line per call site in call order,
 * "<range>\t<module>\t<ops>", where <range> is the NVTX range the site pushes (a Triton kernel's
 * name, an operator's "aten::addmm"), <module> the module path it came from relative to the
 * compiled module ("" for the compiled module itself) and <ops> the operators it fused, joined
 * by '+'. Up to 65,536 sites of 4,096 characters; a graph given again replaces the first. */
void roofline_compiled_graph(const char* graph, const char* sites);
/* The program's step ends here: a training loop's optimizer step returned ("torch.optim.AdamW"
 * names it, cut at 256 characters). In a program that opens no NVTX range, iteration replay's
 * iteration is then the launches from one step's end to the next, not a cycle searched in the
 * launch stream; a program's own ranges still come first. Call it for one loop only (the first
 * optimizer of a program that has two). */
void roofline_step_end(const char* source);

#ifdef __cplusplus
}
#endif

#endif /* ROOFLINE_FRAMEWORK_H */
