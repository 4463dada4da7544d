print("pins")
