"""Views: data-layout patterns as index mappings (no copies), consumed into index
expressions by the two-stack algorithm (:func:`consume`)."""
from .views import (AccessView, AsScalarView, AsVectorView, CondAccess, ConstAccess, GatherIdxView, GenerateView, IndexAccess,
                    JoinView, MemAccess, MemView, NestView, OffsetView, PadView, ReorderView,
                    SlideView, SplitView, TransposeView, TupleAccessView, TupleBuild, ValueAccess, VectorBuild,
                    ValueView, View, ZipView, consume, flat_offset, view_text)
from .build import access, layout_view, memory_view, output_view
