module spindle/bench/go

go 1.19
