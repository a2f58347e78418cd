/* Kernels right for every dtype but one (bf16), wrong there in each way a
 * call can go wrong. The dtype property hands a case's dtypes to the
 * plugin's worker together, in one call: the gate must fail each of these
 * (exit 1), name bf16, and give a hang its own timeout, not the batch's.
 *   crash_bf16: SIGSEGV          hang_bf16:  never returns
 *   wrong_bf16: one bit flipped  over_bf16:  writes 16 bytes past its output
 *   leave_bf16: leaves a process running     fail_bf16: returns 7
 *   copy:       right for every dtype
 * and two that purity, which runs a provenance run (dtype u64) and a data
 * run of each case together, must fail in the run that does it:
 *   scribble_data: writes into its input in data runs only
 *   skip_prov:     leaves its output's last element unwritten in
 *                  provenance runs only
 * and one whose failure is found while the worker still runs the calls
 * after it (the gate checks each call's outputs as the next ones run):
 *   wrong_f16_hang_bf16: one bit flipped for f16, never returns for bf16 */
#include <signal.h>
#include <unistd.h>

#include "plugin_kit.h"

static int is_bf16(const struct sc_plugin_call *call) { return call->dtype == SC_PLUGIN_BF16; }

static int crash_bf16(const struct sc_plugin_call *call)
{
	if (is_bf16(call))
		raise(SIGSEGV);
	return kit_copy(call);
}

static int hang_bf16(const struct sc_plugin_call *call)
{
	while (is_bf16(call))
		pause();
	return kit_copy(call);
}

static int wrong_bf16(const struct sc_plugin_call *call)
{
	kit_copy(call);
	const size_t n = kit_bytes(&call->output);
	if (is_bf16(call) && n)
		((unsigned char *)call->output.data)[n - 1] ^= 1;
	return 0;
}

static int over_bf16(const struct sc_plugin_call *call)
{
	kit_copy(call);
	if (is_bf16(call))
		memset((unsigned char *)call->output.data + kit_bytes(&call->output), 0x5a, 16);
	return 0;
}

static int leave_bf16(const struct sc_plugin_call *call)
{
	if (is_bf16(call) && call->rank == 0 && fork() == 0) {
		sleep(30);
		_exit(0);
	}
	return kit_copy(call);
}

static int scribble_data(const struct sc_plugin_call *call)
{
	kit_copy(call);
	if (call->dtype != SC_PLUGIN_U64 && kit_bytes(&call->input))
		((unsigned char *)call->input.data)[0] ^= 0xff;
	return 0;
}

static int skip_prov(const struct sc_plugin_call *call)
{
	const size_t n = kit_bytes(&call->input);
	memcpy(call->output.data, call->input.data, call->dtype == SC_PLUGIN_U64 && n ? n - 8 : n);
	return 0;
}

static int wrong_f16_hang_bf16(const struct sc_plugin_call *call)
{
	while (is_bf16(call))
		pause();
	kit_copy(call);
	const size_t n = kit_bytes(&call->output);
	if (call->dtype == SC_PLUGIN_F16 && n)
		((unsigned char *)call->output.data)[n - 1] ^= 1;
	return 0;
}

static int fail_bf16(const struct sc_plugin_call *call) { return is_bf16(call) ? 7 : kit_copy(call); }

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	static const struct kit_kernel kernels[] = {
		{"crash_bf16", crash_bf16}, {"hang_bf16", hang_bf16}, {"wrong_bf16", wrong_bf16},
		{"over_bf16", over_bf16},   {"leave_bf16", leave_bf16}, {"fail_bf16", fail_bf16},
		{"wrong_f16_hang_bf16", wrong_f16_hang_bf16}, {"scribble_data", scribble_data}, {"skip_prov", skip_prov}, {"copy", kit_copy}};
	return kit_register(reg, kernels, sizeof kernels / sizeof kernels[0]);
}
