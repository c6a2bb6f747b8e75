from qcstation.cli import main

raise SystemExit(main())
