module spindle/apps/bench/go

go 1.19
