// Stacked walks, a measurement of the strips tool (conv_strips.cu, table `walk_stacked`): the
// library's walked pairs (src/convolution/walk.cuh, walk_tile) from a grid of the blocks the device
// holds at once, each block walking tiles in turn, so that the blocks one SM holds can walk tiles
// one above the other at the same time.
//
// Why: a block's tile is 256 columns by 64 rows, and L1 serves the halo rows its pairs of warps
// share, but not the 6 rows it shares with the blocks above and below, which run on other SMs and
// read them again from L2. Where an SM's blocks walk a column of tiles one above the other, the
// lowest warps of each tile walk upwards and the highest of the next downwards, so both read the
// rows they share at the start of their walks, from one L1. Stack 4 (an SM's 4 blocks): round k
// of the grid gives blocks b, b + sms, b + 2 sms, ... the 4 tiles of one group; an H200 does not
// place those on one SM (8-18 of 132 groups did), so the kernel can also number its blocks by
// their SM's id (on_sm below). Stack 1: the tiles in the grid's order, the control. Blocks take
// items b, b + grid, ... in a fixed order, so the grid's last round leaves some blocks without a
// tile while others walk one; which block runs on which SM is never assumed for the result, only
// for the speed (the table prints how many groups shared an SM).
// Measured slower (H200, 2026-11-30, bench/results/convolution-walk-stacked-h200-2026-11-30.md):
// 3.4% fewer L2 sectors by SM id, 30% more time than the library's grid.
#pragma once

#include "convolution/walk.cuh"

#include <cstdint>

namespace ladder::conv_detail {

// Tile item n (0 <= n < the grid's tiles) of a stacked walk: its block column bx and tile row.
// The tile rows of S rows a warp (g.tail_row of them) in bands of Stack rows make groups of Stack
// tiles, one above the other; in each whole round of sms groups, item k (Stack sms) + i is slot
// i / sms of group k sms + i % sms, so the Stack blocks b, b + sms, ... of a round walk one group;
// the last groups (fewer than sms) go Stack consecutive items a group; the rows past the bands
// (and the tail's) in the grid's order.
template <int Stack>
__device__ __forceinline__ void stacked_tile(unsigned n, const WalkGrid& g, unsigned sms, unsigned& bx,
                                             unsigned& tile_row) {
  // (32-bit: 64-bit divisions are calls, and the walk then spilled some 0.5 KB a thread.)
  const unsigned blocks_x = g.blocks_x, bands = g.tail_row / Stack;
  const unsigned groups = bands * blocks_x, grouped = groups * Stack;
  if (n < grouped) {
    const unsigned per_round = Stack * sms, whole = groups / sms, round = n / per_round;
    unsigned group = 0, slot = 0;
    if (round < whole) {
      const unsigned i = n - round * per_round;
      group = round * sms + i % sms;
      slot = i / sms;
    } else {
      const unsigned j = n - whole * per_round;
      group = whole * sms + j / Stack;
      slot = j % Stack;
    }
    bx = group % blocks_x;
    tile_row = group / blocks_x * Stack + slot;
  } else {
    const unsigned m = n - grouped;
    bx = m % blocks_x;
    tile_row = bands * Stack + m / blocks_x;
  }
}

// The SM the calling thread runs on.
__device__ __forceinline__ unsigned sm_id() {
  unsigned id = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// The walk from a grid of resident blocks: the frame's blocks (blocks 0, 1, ... first), then item n
// the tile stacked_tile gives, a block's warps meeting after each. smids (or null): each block's SM.
// on_sm (or null): a counter an SM, zero at the launch: a block then walks as block slot sms + smid
// of the grid, slot its place among its SM's blocks (each SM must hold gridDim.x / sms blocks and
// number them 0 .. sms - 1: the check says whether it did), so that Stack's groups share an SM
// wherever the GPU placed the blocks.
template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks, int TailS, int AheadLevel, int Ahead, int Stack>
__global__ void __launch_bounds__(Walk2d<MW, S, WarpsX, WarpsY>::threads, MinBlocks)
    walk_stacked_2d(ImageArgs a, const __grid_constant__ WalkTaps<MW> mask, WalkGrid g, int sms, unsigned* smids,
                    unsigned* on_sm) {
  constexpr int threads = Walk2d<MW, S, WarpsX, WarpsY>::threads;
  if (smids != nullptr && threadIdx.x == 0 && threadIdx.y == 0)
    smids[blockIdx.x] = sm_id();
  // The frame's blocks first (a loop of its own: inside the tiles' loop, ptxas held the frame's
  // values across the walk and spilled them).
  for (unsigned f = blockIdx.x; f < g.blocks_x * g.frame_rows; f += gridDim.x)
    walk_frame_block<MW, threads>(a, mask, g, f);
  // The tile walked next, in shared memory: nothing is carried in registers from one tile to the
  // next, so that the walk keeps its 64 (with the tile's index live across it, ptxas spilled).
  __shared__ unsigned next; // (the tool's images have fewer than 2^32 tiles)
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    const unsigned id = sm_id();
    next = on_sm == nullptr ? blockIdx.x : atomicAdd(on_sm + id, 1u) * static_cast<unsigned>(sms) + id;
  }
  __syncthreads();
#pragma unroll 1
  for (;;) {
    const unsigned n = next;
    if (n >= g.blocks_x * (g.blocks_y - g.frame_rows))
      break;
    unsigned bx = 0, tile_row = 0;
    stacked_tile<Stack>(n, g, static_cast<unsigned>(sms), bx, tile_row);
    walk_tile<MW, S, WarpsX, WarpsY, true, 1, TailS, AheadLevel, Ahead>(a, mask, g, bx, tile_row);
    __syncthreads(); // (every thread has read next, and the block's pairs start the next tile together)
    if (threadIdx.x == 0 && threadIdx.y == 0)
      next += gridDim.x; // (not n + gridDim.x: n would be live across the walk)
    __syncthreads();
  }
}

} // namespace ladder::conv_detail
