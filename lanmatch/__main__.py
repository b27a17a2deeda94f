from lanmatch.cli import main

raise SystemExit(main())
