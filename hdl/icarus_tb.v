// Icarus Verilog test bench template for bloomforge co-simulation. sim/cosim/icarus.ts fills in
// the @@...@@ fields for one design. It reads the stimulus with $readmemh as 32-bit words,
// @@ROW_WORDS@@ per cycle (all inputs packed into one vector, first input in the least
// significant bits, least significant word first; short lines keep $readmemh happy) and prints the outputs
// of every cycle, in hex, one line per cycle. Same cycle protocol as the other engines:
// inputs applied with clk low, outputs sampled, then a rising edge.
`timescale 1ns / 1ps
module bf_tb;
  reg clk = 1'b0;
  reg [31:0] stim [0:@@CYCLES@@*@@ROW_WORDS@@-1];
  reg [@@ROW_WORDS@@*32-1:0] row = 0;
  integer k;
@@DECLS@@
  @@MODULE@@ dut (
@@CONNECTIONS@@
  );
  integer c;
  integer f;
  initial begin
    $readmemh("@@STIM@@", stim);
    f = $fopen("@@OUT@@", "w");
    for (c = 0; c < @@CYCLES@@; c = c + 1) begin
      for (k = 0; k < @@ROW_WORDS@@; k = k + 1) row[k*32 +: 32] = stim[c*@@ROW_WORDS@@ + k];
      #1;
      $fwrite(f, "@@FORMAT@@\n", @@OUTPUTS@@);
      #4 clk = 1'b1;
      #5 clk = 1'b0;
    end
    $fclose(f);
    $finish;
  end
endmodule
