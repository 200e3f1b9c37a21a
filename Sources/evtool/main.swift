print("evtool")
