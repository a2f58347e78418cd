/* sc_clookup: lookups by an index tensor (a tensor declared `index DIM`,
 * whose values are integers drawn in [0, size of DIM)). Values are copied,
 * bounds with them: lookups are exact.
 *
 *   embedding idx w       w[idx]: rows of w [V, H]; [*idx.shape, H]
 *   pick a idx            a[..., idx]: per row of a [..., V] the element
 *                         its index names (torch.gather(a, -1,
 *                         idx.unsqueeze(-1)).squeeze(-1)); idx.shape
 *
 * With `start=E` (E may use rank: the first row this rank holds), index i
 * names local row i - E, and an index outside [E, E + V) gives zero: the
 * masked lookup of Megatron's VocabParallelEmbedding and vocab-parallel
 * cross-entropy. Without it, an index outside [0, V) is PyTorch's
 * "index out of range in self". */
#ifndef SC_CLOOKUP_H
#define SC_CLOOKUP_H

#include "sc_ckernel.h"

enum sc_status sc_clookup_embedding(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
enum sc_status sc_clookup_pick(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);

#endif
