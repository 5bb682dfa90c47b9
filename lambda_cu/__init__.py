"""λcu: the flat data-parallel IR (CPU level, kernels of SOACs, GPU thunks).

Modules:
  ``lambda_cu.types``    the stratified types (Fig. 2), ``SeqOf`` source descriptors, ``rep_type``
  ``lambda_cu.prims``    the table of scalar primitives shared by the CPU and GPU levels
  ``lambda_cu.ir``       the nodes of the three levels and the SOACs (signature table there)
  ``lambda_cu.printer``  ``pretty(node)``: the paper's concrete syntax
  ``lambda_cu.check``    ``check_program``: the type checker (raises ``LcuTypeError``)
  ``lambda_cu.values``   runtime values (``SegDes``) and nested-Python-value conversions
  ``lambda_cu.interp``   the vectorised numpy interpreter (raises ``LcuRuntimeError``)
  ``lambda_cu.fusion``   the fusion pass (PDG, ILP schedule, SOAC rewriting)

The package imports nothing: ``lambda_cu.loc`` and ``lambda_cu.support``, which every stage
uses, load without the IR (``str(node)`` loads the printer, see ``lambda_cu.ir.Node``).
"""

