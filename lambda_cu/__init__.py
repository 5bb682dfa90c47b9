"""λcu: the flat data-parallel IR (CPU level, kernels of SOACs, GPU thunks)."""
