"""Address spaces (Algorithm 1) and memory allocation."""
from .address_space import GLOBAL, LOCAL, PRIVATE, AddressSpace, infer_address_spaces
from .alloc import Allocation, Memory, OuterDim, allocate, memory_type, replicated
