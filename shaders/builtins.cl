// The runtime's own kernels, compiled by ferrocl's OpenCL C compiler for each device on first
// use. Buffer copies and fills run here at memory bandwidth, where a GPU's vkCmdCopyBuffer or
// vkCmdFillBuffer is slower. Offsets and counts are in 16-byte elements.

kernel void copy_uint4(global const uint4 *src, global uint4 *dst, uint src_first, uint dst_first, uint count)
{
    uint i = get_global_id(0);
    if (i < count)
        dst[dst_first + i] = src[src_first + i];
}

kernel void fill_uint4(global uint4 *dst, uint first, uint count, uint4 value)
{
    uint i = get_global_id(0);
    if (i < count)
        dst[first + i] = value;
}
