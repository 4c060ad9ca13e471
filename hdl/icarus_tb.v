// Icarus Verilog test bench template for bloomforge co-simulation. sim/cosim/icarus.ts fills in
// the @@...@@ fields for one design. It reads one stimulus row per cycle (all inputs packed into
// one vector, first input in the least significant bits) with $readmemh and prints the outputs
// of every cycle, in hex, one line per cycle. Same cycle protocol as the other engines:
// inputs applied with clk low, outputs sampled, then a rising edge.
`timescale 1ns / 1ps
module bf_tb;
  reg clk = 1'b0;
  reg [@@IN_BITS@@-1:0] stim [0:@@CYCLES@@-1];
  reg [@@IN_BITS@@-1:0] row = 0;
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
      row = stim[c];
      #1;
      $fwrite(f, "@@FORMAT@@\n", @@OUTPUTS@@);
      #4 clk = 1'b1;
      #5 clk = 1'b0;
    end
    $fclose(f);
    $finish;
  end
endmodule
