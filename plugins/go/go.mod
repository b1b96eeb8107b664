module chtbench/plugins/go

go 1.24

require github.com/puzpuzpuz/xsync/v4 v4.5.0
