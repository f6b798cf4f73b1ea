from leastscore.cli import main

main()
